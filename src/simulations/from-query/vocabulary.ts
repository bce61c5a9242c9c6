/**
 * The English the parser understands: grammar words by role, written out in full (every inflection listed) so a
 * reader can see exactly which phrasings are recognised. Lower-case throughout.
 */

const words = (text: string) => new Set(text.split(/\s+/).filter((w) => w !== ''));

/** Never enough on their own to name a variable (a partial name match needs some other word). */
export const STOP_WORDS = words(`
  a an the our my your their its this that these those it we i you they us me of to in on for by with and or is are
  was were be been being what which who how why when where if then than do does did will would should could can may
  might must shall happen happens happened at as from into so too very all any some each every there here about just
  also not no per vs versus`);

/** Qualifiers of a name ("avg_latency_ms") that do not identify a variable by themselves. */
export const GENERIC_WORDS = words(`
  avg average mean total sum num number count value level amount ms sec pct percent id rate index usd eur daily weekly
  monthly yearly annual new current overall`);

/** Small synonym groups (singular forms); a match through a synonym ranks below a match of the name's own words. */
export const SYNONYM_GROUPS: string[][] = [
  ['cost', 'expense', 'expenditure'],
  ['price', 'pricing'],
  ['revenue', 'sale', 'turnover'],
  ['churn', 'attrition'],
  ['customer', 'client'],
  ['discount', 'rebate'],
  ['marketing', 'advertising'],
  ['temperature', 'temp'],
];

/** Articles and possessives skipped before a variable ("increase the price", "raise our marketing spend"). */
export const DETERMINERS = words('the a an our my your their its this that total overall average mean expected');

// --- interventions -------------------------------------------------------------------------------------------

/** Transitive verbs before the variable: "increase price by 10%". */
export const RAISE_VERBS = words(`
  increase increases increased increasing raise raises raised raising boost boosts boosted boosting grow grows grew
  growing lift lifts lifted lifting hike hikes hiked hiking bump bumps bumped bumping up`);
export const LOWER_VERBS = words(`
  decrease decreases decreased decreasing reduce reduces reduced reducing cut cuts cutting lower lowers lowered
  lowering drop drops dropped dropping decline declines declined declining shrink shrinks shrank shrinking slash
  slashes slashed slashing trim trims trimmed trimming lessen lessens lessened`);
export const SET_VERBS = words(`
  set sets setting change changes changed changing make makes made fix fixes fixed fixing put puts force forces forced
  switch switches switched move moves moved adjust adjusts adjusted keep keeps kept hold holds held`);
export const SWEEP_VERBS = words('vary varies varied varying sweep sweeps swept sweeping range ranges ranging try tries trying test testing scan');
/** Scaling verbs and the percentage change they mean. */
export const SCALE_VERBS: Record<string, number> = {
  double: 100, doubles: 100, doubled: 100, doubling: 100,
  halve: -50, halves: -50, halved: -50, halving: -50,
  triple: 200, triples: 200, tripled: 200, tripling: 200,
  quadruple: 300, quadruples: 300, quadrupled: 300,
};
export const ADD_VERBS = words('add adds added adding');

/** Intransitive change verbs after the variable: "price rises 10%" ("goes up" is read as go + up). */
export const RISE_VERBS = words(`
  rise rises rose risen rising increase increases increased increasing grow grows grew grown growing jump jumps jumped
  jumping climb climbs climbed climbing up higher more greater larger raised boosted lifted hiked`);
export const FALL_VERBS = words(`
  fall falls fell fallen falling drop drops dropped dropping decrease decreases decreased decreasing decline declines
  declined declining shrink shrinks shrank shrinking dip dips dipped dipping down lower less smaller cheaper reduced
  lowered cut slashed trimmed`);
/** Nouns of a change: "a price increase of 10%", "a 10% increase in price". */
export const RISE_NOUNS = words('increase rise hike boost jump uplift');
export const FALL_NOUNS = words('decrease drop cut reduction decline fall dip');
/** Linking verbs between a subject and its new value or change ("price is set to", "price were 10% higher"). */
export const AUXILIARIES = words('is are was were be being been gets get got goes go went would will should to');
export const BECOME_VERBS = words('become becomes became goes go went moves move switches switch changes change changed');

/** Words that open a hypothetical: after them "price is 12" is a setting, not an observation. */
export const HYPOTHETICAL_WORDS = words('if suppose supposing assume assuming imagine when whenever had');
/** Words that open the rows an intervention applies to: "for region North", "where tenure is above 5", "in the East". */
export const CONDITION_WORDS = words('for where among amongst whose in');
/** What a twin's rows are called ("for customers with ...", "for a customer with ..."). */
export const UNIT_NOUNS = words('customers customer rows row units unit cases records users people ones everyone everybody anyone');
/** Filler between a condition word and the condition ("for customers with tenure above 5"). */
export const CONDITION_FILLER = new Set([...words('the a an all only those with whose which that have has in'), ...UNIT_NOUNS]);

export const PROBABILITY_NOUNS = words('probability chance chances likelihood share odds proportion fraction');

// --- ranges, amounts, sample values ----------------------------------------------------------------------------

export const STEP_NOUNS = words('steps step points values levels increments settings');
/** Skipped between a variable and its value in a sample: "price of 30", "cpu = 90", "tenure: 5". */
export const VALUE_LINKS = words('is are was were = : of at equals equal to be being around about approximately roughly ~');

// --- families ---------------------------------------------------------------------------------------------------

export const ANOMALY_WORDS = words('anomaly anomalies anomalous unusual outlier outliers abnormal atypical odd weird strange suspicious');
export const PREDICT_WORDS = words(`
  predict predicts predicted predicting prediction predictions forecast forecasts forecasted forecasting estimate
  estimates estimated estimating expected expect likely`);
export const MAXIMISE_WORDS = words('maximise maximize maximising maximizing maximised maximized maximisation maximization');
export const MINIMISE_WORDS = words('minimise minimize minimising minimizing minimised minimized minimisation minimization');
export const OPTIMISE_WORDS = words('optimise optimize optimising optimizing optimal optimum best');
export const HIGHEST_WORDS = words('highest most largest greatest biggest maximum max');
export const LOWEST_WORDS = words('lowest least smallest fewest minimum min');
/** "how can we increase revenue": a wish without an amount is an optimisation. */
export const IMPROVE_VERBS = words('increase raise boost grow improve lift');
export const REDUCE_VERBS = words('reduce lower cut decrease shrink');
export const MODAL_WORDS = words('can could do should would might may');

/** "root cause", "diagnose": a question about particular observations. */
export const HIGH_LOW_WORDS = words(`
  high low higher lower elevated slow bad poor large small big so too unusually spiking up down off wrong excessive
  huge tiny`);
export const EVENT_VERBS = words(`
  spike spiked jump jumped surge surged soar soared plummet plummeted crash crashed drop dropped rise rose fall fell
  increase increased decrease decreased go went`);

/** Explanation verbs, active ("what drives churn") and passive ("what is churn driven by"). */
export const EXPLAIN_VERBS = words(`
  drive drives driving affect affects affecting influence influences influencing impact impacts impacting cause causes
  causing determine determines determining explain explains shape shapes control controls`);
export const PASSIVE_VERBS = words('driven affected influenced impacted caused determined explained shaped controlled');
export const EFFECT_NOUNS = words('effect effects impact impacts influence consequence consequences downstream');
export const CAUSE_NOUNS = words('driver drivers cause causes determinant determinants factor factors reason reasons explanation upstream predictors');
export const DEPEND_WORDS = words('depend depends depended dependent');
/** A change of the subject, as in "why does churn change": asks for its causes. */
export const VARY_VERBS = words('change changes vary varies differ differs fluctuate fluctuates move moves');

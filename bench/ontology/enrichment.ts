/**
 * Forward enrichment through the public API, on generated sales written the way files write places: the bundled
 * `causa.commerce` library is installed, sources whose `country` and `state` columns name each place in one of
 * several forms (name, ISO or USPS code, the library's other names, lower or upper case, spacing and punctuation,
 * a typo, or no place at all) are uploaded and extracted, both concepts are enriched, and every distinct spelling's
 * resolution (the field mapping's valueMap) is scored against the place it was generated from. Also the share of
 * rows a grouped query puts in their true place's group, and the enrichment job's time.
 *
 * Run: `make bench-ontology` (after the extraction bench). Env: BENCH_WRITE=0.
 */
import { resolve } from 'node:path';
import { COUNTRIES } from '../../src/ontology/libraries/reference/countries.js';
import { US_STATES } from '../../src/ontology/libraries/reference/us-states.js';
import { seededRandom } from '../../test/helpers/simulated.js';
import { REPO_ROOT } from '../engine/benchmark-data.js';
import { machineLine, writeSection } from '../lib/report.js';
import { startService } from '../lib/service.js';

const SECTION = '## Ontology enrichment (bench/ontology/enrichment.ts)';
const ROWS = 8_000;
const FORMS = ['name', 'code', 'code3', 'alias', 'lower', 'upper', 'spacing', 'typo', 'none'] as const;
type Form = (typeof FORMS)[number];
const WEIGHTS: Record<Form, number> = { name: 0.3, code: 0.15, code3: 0.08, alias: 0.1, lower: 0.1, upper: 0.07, spacing: 0.08, typo: 0.07, none: 0.05 };
const NOWHERE = ['Atlantis', 'Elbonia', 'Freedonia', 'Wakanda', 'Genovia'];

interface Place {
  name: string;
  codes: string[];
  aliases: string[];
}
const countries: Place[] = COUNTRIES.map(([name, alpha2, alpha3, aliases]) => ({ name, codes: [alpha2, alpha3], aliases: [...(aliases ?? [])] }));
const states: Place[] = US_STATES.map(([name, code, aliases]) => ({ name, codes: [code], aliases: [...(aliases ?? [])] }));

/** One place written in a form; null truth for a value that names no place. */
function write(places: Place[], random: { uniform(): number }): { written: string; truth: string | null; form: Form } {
  let u = random.uniform();
  const form = FORMS.find((f) => (u -= WEIGHTS[f]) < 0) ?? 'name';
  const place = places[Math.floor(random.uniform() * places.length)]!;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random.uniform() * xs.length)]!;
  switch (form) {
    case 'none': return { written: pick(NOWHERE), truth: null, form };
    case 'code': return { written: place.codes[0]!, truth: place.name, form };
    case 'code3': return { written: place.codes[1] ?? place.codes[0]!, truth: place.name, form };
    case 'alias': return { written: place.aliases.length > 0 ? pick(place.aliases) : place.name, truth: place.name, form };
    case 'lower': return { written: place.name.toLowerCase(), truth: place.name, form };
    case 'upper': return { written: place.name.toUpperCase(), truth: place.name, form };
    case 'spacing': return { written: place.name.includes(' ') ? place.name.replaceAll(' ', pick(['-', '_', '  '])) : `${place.name}.`, truth: place.name, form };
    case 'typo': {
      // One inner letter dropped: a misspelling no rule of spelling variants covers.
      const at = 1 + Math.floor(random.uniform() * Math.max(1, place.name.length - 2));
      return { written: place.name.slice(0, at) + place.name.slice(at + 1), truth: place.name, form };
    }
    default: return { written: place.name, truth: place.name, form };
  }
}

const service = await startService('enrichment');
const { ws, call } = service;
const wait = async (check: () => Promise<boolean>, what: string) => {
  for (let i = 0; !(await check()); i++) {
    if (i > 3000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 20));
  }
};

const installed = await call('POST', `/workspaces/${ws}/ontology/installs`, { ontologyId: 'causa.commerce' });
if (installed.status !== 201) throw new Error(`install: ${JSON.stringify(installed)}`);

interface Score { spellings: number; resolved: number; correct: number; wrong: number; missed: number; rowsInTrueGroup: number; rowsWithPlace: number; typoSpellings: number; typoResolved: number; noneWronglyResolved: number; seconds: number }
const results: Array<{ seed: number; column: string; score: Score }> = [];

for (const seed of [101, 202, 303]) {
  const random = seededRandom(seed);
  const truth = { country: new Map<string, { truth: string | null; form: Form }>(), state: new Map<string, { truth: string | null; form: Form }>() };
  const rows = Array.from({ length: ROWS }, (_, i) => {
    const country = write(countries, random);
    const state = write(states, random);
    truth.country.set(country.written, { truth: country.truth, form: country.form });
    truth.state.set(state.written, { truth: state.truth, form: state.form });
    return { order_id: `O${seed}-${i}`, country: country.written, state: state.written, amount: Math.round(random.uniform() * 10_000) / 100 };
  });
  const name = `sales ${seed}`;
  const source = await call('POST', `/workspaces/${ws}/sources/from-data`, { name, rows });
  if (source.status !== 201) throw new Error(`source: ${JSON.stringify(source).slice(0, 300)}`);
  await wait(async () => (await call('GET', `/sources/${source.data.id}`)).data.ontologyStatus === 'completed', 'extraction');
  const dataset = await call('POST', `/workspaces/${ws}/datasets`, { name, sources: [{ id: source.data.id }] });
  if (dataset.status !== 201) throw new Error(`dataset: ${JSON.stringify(dataset)}`);
  const concepts = (await call('GET', `/workspaces/${ws}/ontology/concepts?limit=200`)).data as Array<Record<string, any>>;
  for (const [column, canonicalId] of [['country', 'country'], ['state', 'us_state']] as const) {
    const concept = concepts.find((c) => c.ontologyRef?.canonicalId === canonicalId)!;
    if (!concept.fieldMappings.some((m: { sourceId: string; field: string }) => m.sourceId === source.data.id && m.field === column)) {
      throw new Error(`extraction did not map ${column} to the installed ${concept.name} concept: ${JSON.stringify(concepts.filter((c) => c.fieldMappings.some((m: { field: string }) => m.field === column)).map((c) => c.name))}`);
    }
    const started = Date.now();
    const job = await call('POST', `/workspaces/${ws}/ontology/concepts/${concept.id}/enrichments`, {});
    await wait(async () => (await call('GET', `/workspaces/${ws}/jobs/${job.data.jobId}`)).data.status === 'completed', 'enrichment');
    const seconds = (Date.now() - started) / 1000;
    const enriched = (await call('GET', `/workspaces/${ws}/ontology/concepts/${concept.id}`)).data;
    const canonical = new Set((enriched.valueMappings as Array<{ canonicalValue: string }>).map((m) => m.canonicalValue));
    const valueMap = (enriched.fieldMappings as Array<{ sourceId: string; field: string; valueMap: Record<string, string> | null }>).find((m) => m.sourceId === source.data.id && m.field === column)!.valueMap ?? {};
    const score: Score = { spellings: 0, resolved: 0, correct: 0, wrong: 0, missed: 0, rowsInTrueGroup: 0, rowsWithPlace: 0, typoSpellings: 0, typoResolved: 0, noneWronglyResolved: 0, seconds };
    for (const [written, { truth: meant, form }] of truth[column]) {
      const to = valueMap[written] ?? (canonical.has(written) ? written : null);
      score.spellings += 1;
      if (to !== null) score.resolved += 1;
      if (to !== null && to === meant) score.correct += 1;
      if (to !== null && to !== meant) {
        score.wrong += 1;
        if (process.env.BENCH_VERBOSE === '1') console.log(`${column}: "${written}" (${form} of ${meant}) resolved to ${to}`);
      }
      if (to === null && meant !== null) score.missed += 1;
      if (form === 'typo') {
        score.typoSpellings += 1;
        if (to === meant) score.typoResolved += 1;
      }
      if (meant === null && to !== null) score.noneWronglyResolved += 1;
    }
    // Rows the query groups under their true place.
    const grouped = await call('POST', `/workspaces/${ws}/query`, { query: `SELECT ${column}, count(*) AS n FROM "${name}" GROUP BY ${column}`, limit: 1000 });
    if (grouped.data.ok !== true) throw new Error(`query: ${JSON.stringify(grouped.data).slice(0, 300)}`);
    const counts = new Map<string, number>((grouped.data.rows as Array<Record<string, unknown>>).map((r) => [String(r[column]), Number(r.n)]));
    const truthCounts = new Map<string, number>();
    for (const row of rows) {
      const meant = truth[column].get(row[column])!.truth;
      if (meant !== null) truthCounts.set(meant, (truthCounts.get(meant) ?? 0) + 1);
    }
    for (const [place, n] of truthCounts) {
      score.rowsWithPlace += n;
      score.rowsInTrueGroup += Math.min(n, counts.get(place) ?? 0);
    }
    results.push({ seed, column, score });
  }
}
await service.close();

const ratio = (a: number, b: number) => (b === 0 ? 'n/a' : (a / b).toFixed(3));
const lines = [
  SECTION,
  '',
  machineLine(),
  '',
  `The bundled causa.commerce library installed; per seed one source of ${ROWS.toLocaleString('en')} sales rows whose country and US state are written as: ` +
    `${FORMS.map((f) => `${f} ${Math.round(WEIGHTS[f] * 100)}%`).join(', ')} (name: the library's name; code/code3: ISO alpha-2/alpha-3, or the USPS code; alias: one of the library's other names; ` +
    'spacing: spaces as hyphens, underscores or doubled; typo: one inner letter dropped; none: a place that does not exist). Extraction maps the columns onto the installed concepts; ' +
    'each concept is enriched through `POST .../enrichments`. Per distinct spelling: precision (resolved to the place meant, of those resolved), recall (of those naming a place), ' +
    'typos resolved, non-places resolved to a place; rows a grouped query puts under their true place; the enrichment job (request to completion).',
  '',
  '| seed | column | spellings | precision | recall | recall without typos | typos resolved | non-places resolved | rows in their true group | enrichment s |',
  '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...results.map(({ seed, column, score: s }) => {
    const named = s.correct + s.missed + (s.wrong - s.noneWronglyResolved);
    return `| ${seed} | ${column} | ${s.spellings} | ${ratio(s.correct, s.resolved)} | ${ratio(s.correct, named)} | ${ratio(s.correct - s.typoResolved, named - s.typoSpellings)} | ${s.typoResolved}/${s.typoSpellings} | ${s.noneWronglyResolved} | ${ratio(s.rowsInTrueGroup, s.rowsWithPlace)} | ${s.seconds.toFixed(2)} |`;
  }),
  '',
  'Typos are resolved only where a rule happens to cover them: the enrichment matches spellings by rule (case, spacing, punctuation, accents, codes, initials, abbreviations of one value), never by edit distance, so a near miss stays as written (and is listed among the unmatched values to add as an alias) rather than risk a wrong place.',
  '',
];
console.log(lines.join('\n'));
if (process.env.BENCH_WRITE !== '0') writeSection(resolve(REPO_ROOT, 'BENCHMARKS.md'), SECTION, lines.join('\n'));

/**
 * Ranking root causes from Shapley contributions, attributed along the graph. A twin learns its mechanisms from
 * normal variation, so it often understates how far a large fault propagates: the variables downstream of a fault
 * then show anomalous noise of their own, and their Shapley contributions alone would blame them. The ranking
 * therefore weighs single-fault hypotheses (one fault whose propagation the twin understates is far likelier than
 * several independent faults at once):
 * - anomalous variables are the players whose noise or value tail probability is at most `level` (the Sidak level
 *   of targetFpr over the players: a unit without a real anomaly shows none with probability 1 - targetFpr);
 *   a candidate is a player whose own noise is anomalous, or unscorable (a parent missing) while its value is;
 * - a fault at candidate k explains k and its cascade -- the anomalous variables it reaches through anomalous
 *   variables (the anomaly traversal of the PetShop baseline, Hardt et al. 2023). Every other anomalous variable
 *   must then be a chance event, of probability its tail probability: the hypothesis costs the sum of their
 *   -log tail probabilities. Candidates are ranked by that unexplained cost, least first, then by credit -- their
 *   own Shapley contribution plus the positive contributions of their cascade, the share of the target's anomaly
 *   score a fault at k accounts for (reported as its contribution); candidates equal on both share a rank (the
 *   twin cannot tell them apart: e.g. two services that never varied in training, failing together) and are
 *   listed upstream first;
 * - the remaining positive contributors follow by their own contribution.
 */

export interface RankingInput {
  /** Player node indices (the target and its ancestors), in topological order. */
  players: number[];
  /** Position of the target in players. */
  target: number;
  /** Shapley contribution per player (aligned with players). */
  contributions: ArrayLike<number>;
  /** Per player: noise tail probability (NaN = unscorable) and value tail probability (NaN = missing). */
  noiseTail: ArrayLike<number>;
  valueTail: ArrayLike<number>;
  /** Parent node indices of a node. */
  parentsOf(node: number): number[];
  /** Tail probability at or below which a player's noise or value is anomalous. */
  level: number;
}

export interface RankedCause {
  /** Position in players. */
  player: number;
  /** A candidate's credit (own contribution plus its cascade's), else the player's own contribution. */
  contribution: number;
  candidate: boolean;
  /** A candidate whose cascade of anomalous variables reaches the target. */
  reachesTarget: boolean;
  /** 1-based; candidates the ranking cannot tell apart share one (competition ranking: 1, 1, 3). */
  rank: number;
}

export function rankRootCauses(input: RankingInput): RankedCause[] {
  const { players, contributions, noiseTail, valueTail, level } = input;
  const d = players.length;
  const position = new Map(players.map((node, j) => [node, j]));
  // How improbable each player is on its own: the smaller of its noise and value tail probabilities.
  const tail = players.map((_, j) => Math.min(orOne(noiseTail[j]!), orOne(valueTail[j]!)));
  const anomalous = tail.map((p) => p <= level);
  // The target is the symptom under diagnosis: a cascade may end at it whatever its own tail probability.
  anomalous[input.target] = true;
  const candidate = players.map((_, j) => noiseTail[j]! <= level || (Number.isNaN(noiseTail[j]!) && valueTail[j]! <= level));
  const children: number[][] = players.map(() => []);
  players.forEach((node, j) => {
    if (!anomalous[j]) return;
    for (const q of input.parentsOf(node)) {
      const p = position.get(q);
      if (p !== undefined && anomalous[p]) children[p]!.push(j);
    }
  });
  const surprise = tail.map((p) => -Math.log(Math.max(p, 1e-300)));
  const totalSurprise = surprise.reduce((s, v, j) => (anomalous[j] ? s + v : s), 0);
  const credit = new Float64Array(d);
  const reaches = new Uint8Array(d);
  const unexplained = new Float64Array(d);
  for (let k = 0; k < d; k++) {
    if (!candidate[k]) continue;
    const explained = new Set<number>([k]);
    const stack = [...children[k]!];
    while (stack.length > 0) {
      const j = stack.pop()!;
      if (explained.has(j)) continue;
      explained.add(j);
      stack.push(...children[j]!);
    }
    if (explained.has(input.target)) reaches[k] = 1;
    let covered = 0;
    credit[k] = contributions[k]!;
    for (const j of explained) {
      covered += surprise[j]!;
      if (j !== k) credit[k]! += Math.max(0, contributions[j]!);
    }
    unexplained[k] = Math.max(0, totalSurprise - covered);
  }
  const all = Array.from({ length: d }, (_, j) => j);
  const leading = all
    .filter((j) => candidate[j] && (reaches[j] === 1 || (credit[j]! > 0 && contributions[j]! > 0)))
    .sort((a, b) => unexplained[a]! - unexplained[b]! || credit[b]! - credit[a]!);
  const led = new Set(leading);
  const rest = all.filter((j) => !led.has(j) && contributions[j]! > 0).sort((a, b) => contributions[b]! - contributions[a]!);
  const tied = (a: number, b: number) => same(unexplained[a]!, unexplained[b]!) && same(credit[a]!, credit[b]!);
  return [
    ...leading.map((player, i) => ({ player, contribution: credit[player]!, candidate: true, reachesTarget: reaches[player] === 1, rank: i + 1 })),
    ...rest.map((player, i) => ({ player, contribution: contributions[player]!, candidate: false, reachesTarget: false, rank: leading.length + i + 1 })),
  ].map((cause, i, list) => {
    if (i > 0 && cause.candidate && tied(list[i - 1]!.player, cause.player)) cause.rank = list[i - 1]!.rank;
    return cause;
  });
}

const same = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

const orOne = (p: number) => (Number.isNaN(p) ? 1 : p);

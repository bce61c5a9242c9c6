/** The twin kinds, by type (spec "Digital twin": `type`). */
import type { TwinType } from '../../../schemas/twins.js';
import type { TwinKind } from './kind.js';
import { multiEnvironmentStatic, multiEnvironmentTemporal } from './multi-environment/index.js';
import staticKind from './static/index.js';
import temporal from './temporal/index.js';

const kinds = new Map<string, TwinKind>([staticKind, temporal, multiEnvironmentStatic, multiEnvironmentTemporal].map((kind) => [kind.type, kind]));

export function twinKind(type: TwinType | string): TwinKind {
  const kind = kinds.get(type);
  if (kind === undefined) throw new Error(`twin kind ${type} is not registered`);
  return kind;
}

/** The kinds whose versions score rows (POST .../score). */
export const scoringKinds = (): string[] => [...kinds.values()].filter((kind) => kind.scoring !== undefined).map((kind) => kind.type);

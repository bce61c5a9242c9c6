/** Multi-environment twins (panels): recorded with their environment columns; their learning is not built yet. */
import type { TwinType } from '../../../../schemas/twins.js';
import { defineKind } from '../kind.js';

const panel = (type: TwinType, timed: boolean) =>
  defineKind<never, never>({
    type,
    lagged: timed,
    requirements: (twin) => [
      ...(twin.environmentColumns.length === 0 ? [{ location: 'body/environmentColumns', message: `a ${type} twin needs environmentColumns` }] : []),
      ...(timed && twin.selectedTimeColumnName === null ? [{ location: 'body/selectedTimeColumnName', message: `a ${type} twin needs selectedTimeColumnName` }] : []),
    ],
    questionContext: () => ({ variables: new Map() }),
  });

export const multiEnvironmentStatic = panel('multi-environment-static', false);
export const multiEnvironmentTemporal = panel('multi-environment-temporal', true);

/** Temporal twins: lagged and contemporaneous mechanisms over a time-ordered series. */
import { defineKind } from '../kind.js';

export default defineKind<never, never>({
  type: 'temporal',
  lagged: true,
  requirements: (twin) => (twin.selectedTimeColumnName === null ? [{ location: 'body/selectedTimeColumnName', message: 'a temporal twin needs selectedTimeColumnName' }] : []),
  variables: () => new Map(),
});

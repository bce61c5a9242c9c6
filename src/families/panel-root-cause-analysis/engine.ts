import { perEnvironment } from '../../engine/panel/questions.js';
import engine from '../temporal-root-cause-analysis/engine.js';

export default perEnvironment(engine, 'temporal_root_cause_analysis');

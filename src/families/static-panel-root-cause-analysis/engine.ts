import { perEnvironment } from '../../engine/panel/questions.js';
import engine from '../root-cause-analysis/engine.js';

export default perEnvironment(engine, 'root_cause_analysis');

import { perEnvironment } from '../../engine/panel/questions.js';
import engine from '../temporal-counterfactual/engine.js';

export default perEnvironment(engine, 'temporal_counterfactual');

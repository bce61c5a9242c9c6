import { perEnvironment } from '../../engine/panel/questions.js';
import engine from '../counterfactual/engine.js';

export default perEnvironment(engine, 'counterfactual');

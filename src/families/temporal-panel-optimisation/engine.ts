import { perEnvironment } from '../../engine/panel/questions.js';
import engine from '../temporal-optimisation/engine.js';

export default perEnvironment(engine, 'temporal_optimisation');

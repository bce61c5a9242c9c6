import { perEnvironment } from '../../engine/panel/questions.js';
import engine from '../temporal-intervention/engine.js';

export default perEnvironment(engine, 'temporal_intervention');

import { perEnvironment } from '../../engine/panel/questions.js';
import engine from '../temporal-explanation/engine.js';

export default perEnvironment(engine, 'temporal_explanation');

import { perEnvironment } from '../../engine/panel/questions.js';
import engine from '../explanation/engine.js';

export default perEnvironment(engine, 'explanation');

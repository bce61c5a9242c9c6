import { perEnvironment } from '../../engine/panel/questions.js';
import engine from '../optimisation/engine.js';

export default perEnvironment(engine, 'optimisation');

import { perEnvironment } from '../../engine/panel/questions.js';
import engine from '../intervention/engine.js';

export default perEnvironment(engine, 'intervention');

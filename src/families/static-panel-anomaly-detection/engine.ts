import { perEnvironment } from '../../engine/panel/questions.js';
import engine from '../anomaly-detection/engine.js';

export default perEnvironment(engine, 'anomaly_detection');

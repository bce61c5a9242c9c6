import { perEnvironment } from '../../engine/panel/questions.js';
import engine from '../temporal-anomaly-detection/engine.js';

export default perEnvironment(engine, 'temporal_anomaly_detection');

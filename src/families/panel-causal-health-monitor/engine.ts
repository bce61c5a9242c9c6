import { perEnvironment } from '../../engine/panel/questions.js';
import engine from '../causal-health-monitor/engine.js';

export default perEnvironment(engine, 'causal_health_monitor');

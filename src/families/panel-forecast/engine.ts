import { panelForecast } from '../../engine/panel/forecast.js';

export default panelForecast;

// uPlot, always imported through here: the locale repair runs first (docs/dashboard.md, "Locale").
import './navigator-locale';
import uPlot from 'uplot';

export default uPlot;

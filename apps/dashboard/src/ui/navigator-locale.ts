import { repairNavigatorLocale } from './locale';

// A module of its own so that importing it before 'uplot' runs the repair before uPlot's module
// body reads navigator.language (ES modules evaluate in import order). docs/dashboard.md, "Locale".
repairNavigatorLocale();

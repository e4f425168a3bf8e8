/**
 * Vigil's icon, the dashboard's (web/index.html): what `/favicon.ico` answers where no status
 * page names its own. SVG, which browsers take at that path by its content type.
 */
export const VIGIL_ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="6" fill="#16a34a"/></svg>`;

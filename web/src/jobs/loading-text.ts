/** The specification's loading text of Job History: the page and the route's guards show it, whatever is still loading. */
export const JOBS_LOADING_TEXT = 'Loading your render jobs...';

/**
 * The phases of a search, timed when the caller asks (the API's Server-Timing header). A module of its own: the
 * retrieval, the engines that the CPU threads run and the API all name them, and none of them should import another
 * for it.
 */
export type SearchPhase = 'tenant' | 'embed' | 'hybrid' | 'compose' | 'model' | 'session';

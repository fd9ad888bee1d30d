/** Injection tokens of values that are not classes. */
export const STATE_STORE = Symbol('STATE_STORE');
export const API_CONFIG = Symbol('API_CONFIG');

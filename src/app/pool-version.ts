/** The version the API and the control socket report (package.json's). */
export const POOL_VERSION = '0.1.0';

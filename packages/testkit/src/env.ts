/** Set by the global setup for the test workers. */
export const ADMIN_URL_ENV = 'MAILCAST_TEST_ADMIN_URL';
export const TEMPLATE_ENV = 'MAILCAST_TEST_TEMPLATE';

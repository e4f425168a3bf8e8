/**
 * Vigil cannot start (or finish an operation) for a reason the operator can fix; the message
 * says what to do. The CLI prints it without a stack and exits with status 1.
 */
export class StartupError extends Error {}

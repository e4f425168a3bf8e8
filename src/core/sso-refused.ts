/** A single sign-on that did not end in a session: the message is shown on the sign-in page. */
export class SsoRefused extends Error {}

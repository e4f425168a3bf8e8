/** A single sign-on that did not end in a session: the message is shown on the sign-in page. */
export class SsoRefused extends Error {}

/** A signed-in member's linking of their account at the provider that did not end in a link: shown on the Security page. */
export class SsoLinkRefused extends SsoRefused {}

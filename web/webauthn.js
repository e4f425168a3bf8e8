// Passkey ceremonies in the browser (@simplewebauthn/browser), loaded only when a passkey is used.
import { browserSupportsWebAuthn, startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { api } from './api.js';

export const passkeysSupported = () => browserSupportsWebAuthn();

/** Signs in with a passkey of this site: the browser asks which, and for its PIN or biometric. */
export async function signInWithPasskey() {
  const { data: optionsJSON } = await api('POST', '/sessions/passkey/options');
  const response = await startAuthentication({ optionsJSON });
  return api('POST', '/sessions/passkey', { response });
}

/** Registers a new passkey for the signed-in member under `name`. */
export async function registerPasskey(name) {
  const { data: optionsJSON } = await api('POST', '/passkeys/options');
  const response = await startRegistration({ optionsJSON });
  return api('POST', '/passkeys', { name, response });
}

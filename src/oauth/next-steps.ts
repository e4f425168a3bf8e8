export interface NextStepsInput {
  apiBase: string;
  mcpUrl: string;
  tokenEndpoint: string;
  email: string;
  claimEmailSent: boolean;
}

/** The signup response's `next_steps`: what an agent should do now, with every address spelled out. */
export function nextSteps(i: NextStepsInput): string {
  const claim = i.claimEmailSent
    ? `Tell the user to open the claim email sent to ${i.email} and press its button`
    : `No claim email could be sent (email delivery is not set up on this server or failed); tell the user that ${i.email} has an unclaimed Vigil account`;
  return [
    '1. Store both tokens securely. Send "Authorization: Bearer <access_token>" on every request.',
    `2. Read the account and its limits: GET ${i.apiBase}/public/account. The API is described at ${i.apiBase}/openapi.json; the tool server (MCP) is at ${i.mcpUrl} and takes the same token.`,
    `3. Create a check: POST ${i.apiBase}/public/checks with a unique "Idempotency-Key" header and a JSON body such as {"url": "https://example.com"}.`,
    `4. ${claim}: until the account is claimed no alert is delivered, its checks pause after 7 days and it is deleted after 30 days.`,
    `5. The access token lasts 30 days. Before then, POST ${i.tokenEndpoint} (form-encoded: grant_type=refresh_token&refresh_token=<refresh_token>) and keep the new refresh token: each one works once.`,
  ].join('\n');
}

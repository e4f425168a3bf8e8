/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** How an agent is named to people: its own name quoted, or a neutral phrase when it gave none. */
export function agentLabel(agentName: string | null): string {
  return agentName ? `The AI agent "${agentName}"` : 'An AI agent';
}


/** Issue 29: what an operator says on a status page while something is wrong. */
export const INCIDENT_IMPACTS = ['none', 'minor', 'major', 'critical'] as const;
export type IncidentImpact = (typeof INCIDENT_IMPACTS)[number];
export const INCIDENT_STATUSES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

/** One entry of an incident's timeline. */
export interface IncidentUpdate {
  id: string;
  status: IncidentStatus;
  /** Plain text, up to 5,000 characters. */
  message: string;
  at: number;
}

export interface Incident {
  id: string;
  pageId: string;
  title: string;
  impact: IncidentImpact;
  /** The latest update's status; `resolved` closes the incident. */
  status: IncidentStatus;
  /** Affected checks, among the page's (a deleted check leaves every incident). */
  checkIds: string[];
  /** Oldest first. */
  updates: IncidentUpdate[];
  /**
   * The check whose confirmed outage opened it (a page's `autoIncidents`) while Vigil still
   * runs it: it resolves itself when the check is up again. Null once an operator has taken it
   * over, and for incidents an operator opened.
   */
  autoCheckId: string | null;
  createdAt: number;
  updatedAt: number;
  resolvedAt: number | null;
}

export interface IncidentRepo {
  /** Inserts the incident with its checks and its updates, as one unit. */
  insert(incident: Incident): Promise<void>;
  /**
   * Writes every field but id, page and creation time, replaces its checks, and appends
   * `added` to its timeline, as one unit.
   */
  save(incident: Incident, added: IncidentUpdate | null): Promise<void>;
  delete(id: string): Promise<void>;
  byId(id: string): Promise<Incident | null>;
  /** The page's incidents, newest first. */
  list(pageId: string, page: { limit: number; offset: number }): Promise<Incident[]>;
  count(pageId: string): Promise<number>;
  /** What the public page shows: every open incident, and those resolved at or after `since`; newest first. */
  shown(pageId: string, since: number): Promise<Incident[]>;
  /** The open incident Vigil opened for the check on the page and still runs, if any. */
  openAuto(pageId: string, checkId: string): Promise<Incident | null>;
}

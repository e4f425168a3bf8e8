import type { Config } from '../config.js';
import { inMaintenance } from '../monitor/maintenance.js';
import type { Check } from '../domain/records.js';
import { checkDetail, checkListItem } from '../core/views.js';
import type { PageMeta } from '../core/pagination.js';
import type { Reply } from './http-types.js';
import type { Principal } from '../core/principal.js';
import { Lru } from '../util/lru.js';

/**
 * Check records are immutable (a change makes a new object), so the JSON of a record can be
 * kept beside it and reused until the record is replaced or its uptime moves: lists and gets
 * then cost a few string joins instead of a view and a stringify per check.
 */
const listJson = new WeakMap<Check, { json: string; uptime: number }>();
const detailJson = new WeakMap<Check, { json: string; maintenance: boolean; uptime: number }>();

/** The record's uptime (StatsService.recordUptime). */
export type UptimeOf = (check: Check) => number;

export function listItemJson(check: Check, config: Config, uptime: number): string {
  const cached = listJson.get(check);
  if (cached && cached.uptime === uptime) return cached.json;
  const json = JSON.stringify(checkListItem(check, config, uptime));
  listJson.set(check, { json, uptime });
  return json;
}

export function detailJsonOf(check: Check, config: Config, now: number, uptime: number): string {
  const maintenance = inMaintenance(check, now);
  const cached = detailJson.get(check);
  if (cached && cached.maintenance === maintenance && cached.uptime === uptime) return cached.json;
  const json = JSON.stringify(checkDetail(check, config, now, uptime));
  detailJson.set(check, { json, maintenance, uptime });
  return json;
}

export function jsonReply(text: string, status = 200): Reply {
  return { status, raw: { contentType: 'application/json; charset=utf-8', text } };
}

export function listReply(checks: Check[], meta: PageMeta, config: Config, uptimeOf: UptimeOf): Reply {
  return jsonReply(`{"data":[${checks.map((c) => listItemJson(c, config, uptimeOf(c))).join(',')}],"meta":${JSON.stringify(meta)}}`);
}

export function detailReply(check: Check, config: Config, now: number, uptime: number): Reply {
  return jsonReply(`{"data":${detailJsonOf(check, config, now, uptime)}}`);
}

/**
 * Rendered list pages, reused while no check has changed anywhere (the repository's version)
 * within the same minute (uptime moves with time): dashboards poll the same pages far more
 * often than that.
 */
export class PageCache {
  private readonly pages = new Lru<string, { version: string; reply: Reply }>(1000);

  get(principal: Principal, query: unknown, version: string, render: () => Reply): Reply {
    const key = JSON.stringify([principal.account.id, principal.access, query]);
    const hit = this.pages.get(key);
    if (hit && hit.version === version) return { ...hit.reply };
    const reply = render();
    this.pages.set(key, { version, reply });
    return { ...reply };
  }
}

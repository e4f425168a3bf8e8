import type { Config } from '../config.js';
import { inMaintenance } from '../monitor/maintenance.js';
import type { Check } from '../domain/records.js';
import { checkDetail, checkListItem } from '../core/views.js';
import type { PageMeta } from '../core/pagination.js';
import type { Reply } from './http-types.js';
import type { Principal } from '../core/principal.js';
import { Lru } from '../util/lru.js';
import type { LastProbe } from '../monitor/live-check.js';

/**
 * Check records are immutable (a change makes a new object), so the JSON of a record can be
 * kept beside it and reused until the record is replaced: lists and gets then cost a few
 * string joins instead of a view and a stringify per check.
 */
const listJson = new WeakMap<Check, string>();
const detailJson = new WeakMap<Check, { json: string; maintenance: boolean }>();

export function listItemJson(check: Check, config: Config): string {
  let json = listJson.get(check);
  if (json === undefined) {
    json = JSON.stringify(checkListItem(check, config));
    listJson.set(check, json);
  }
  return json;
}

export function detailJsonOf(check: Check, config: Config, now: number): string {
  const maintenance = inMaintenance(check, now);
  const cached = detailJson.get(check);
  if (cached && cached.maintenance === maintenance) return cached.json;
  const json = JSON.stringify(checkDetail(check, config, now));
  detailJson.set(check, { json, maintenance });
  return json;
}

export function jsonReply(text: string, status = 200): Reply {
  return { status, raw: { contentType: 'application/json; charset=utf-8', text } };
}

export function listReply(checks: Check[], meta: PageMeta, config: Config): Reply {
  return jsonReply(`{"data":[${checks.map((c) => listItemJson(c, config)).join(',')}],"meta":${JSON.stringify(meta)}}`);
}

/** The record with its `lastProbe`, which changes with every result and so is not cached with the rest. */
export function detailReply(check: Check, config: Config, now: number, lastProbe: LastProbe | null = null): Reply {
  const json = detailJsonOf(check, config, now);
  const live = lastProbe && {
    at: new Date(lastProbe.at).toISOString(), status: lastProbe.status, responseTime: lastProbe.responseTime, region: lastProbe.region,
  };
  return jsonReply(`{"data":${json.slice(0, -1)},"lastProbe":${JSON.stringify(live)}}}`);
}

/**
 * Rendered list pages, reused while no check has changed anywhere (the repository's version):
 * dashboards poll the same pages far more often than checks change.
 */
export class PageCache {
  private readonly pages = new Lru<string, { version: number; reply: Reply }>(1000);

  get(principal: Principal, query: unknown, version: number, render: () => Reply): Reply {
    const key = JSON.stringify([principal.account.id, principal.access, query]);
    const hit = this.pages.get(key);
    if (hit && hit.version === version) return { ...hit.reply };
    const reply = render();
    this.pages.set(key, { version, reply });
    return { ...reply };
  }
}

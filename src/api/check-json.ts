import { whenAnswered, type Answer } from '../store/answer.js';
import type { Config } from '../config.js';
import { inMaintenance } from '../monitor/maintenance.js';
import type { Check } from '../domain/records.js';
import { checkDetail, checkListItem } from '../core/views.js';
import type { PageMeta } from '../core/pagination.js';
import { jsonReply, type Reply } from './http-types.js';
import type { LastProbe } from '../monitor/live-check.js';
import { Lru } from '../util/lru.js';
import { nextExpectedAt } from '../core/heartbeat-schedule.js';

/**
 * Check records are immutable (a change makes a new object), so the JSON of a record can be
 * kept beside it and reused until the record is replaced: lists and gets then cost a few
 * string joins instead of a view and a stringify per check.
 */
const listJson = new WeakMap<Check, Buffer>();
const detailJson = new WeakMap<Check, { head: string; maintenance: boolean; blockedBy: readonly string[]; nextExpected: number | null }>();

/** A list item's JSON, UTF-8 encoded once: a page is then one copy of its items' bytes. */
function listItemJson(check: Check, config: Config): Buffer {
  let json = listJson.get(check);
  if (json === undefined) {
    json = Buffer.from(JSON.stringify(checkListItem(check, config)));
    listJson.set(check, json);
  }
  return json;
}

function detailHead(check: Check, config: Config, now: number, blockedBy: readonly string[]): string {
  const maintenance = inMaintenance(check, now);
  // A heartbeat on a schedule: its next expected ping moves on as the runs pass.
  const nextExpected = nextExpectedAt(check, now);
  const cached = detailJson.get(check);
  if (cached && cached.maintenance === maintenance && cached.nextExpected === nextExpected && sameIds(cached.blockedBy, blockedBy)) return cached.head;
  const json = JSON.stringify(checkDetail(check, config, now, blockedBy));
  // The reply up to its live part: `{"data":{...record,"lastProbe":` then the live value and `}}`.
  const head = `{"data":${json.slice(0, -1)},"lastProbe":`;
  detailJson.set(check, { head, maintenance, blockedBy, nextExpected });
  return head;
}

const sameIds = (a: readonly string[], b: readonly string[]) => a === b || (a.length === b.length && a.every((id, i) => id === b[i]));


const LIST_OPEN = Buffer.from('{"data":[');
const COMMA = Buffer.from(',');

function listBody(checks: Check[], meta: PageMeta, config: Config): Buffer {
  const parts: Buffer[] = [LIST_OPEN];
  for (let i = 0; i < checks.length; i++) {
    if (i > 0) parts.push(COMMA);
    parts.push(listItemJson(checks[i]!, config));
  }
  parts.push(Buffer.from(`],"meta":${JSON.stringify(meta)}}`));
  return Buffer.concat(parts);
}

/** The record with its `lastProbe`, which changes with every result and so is not cached with the rest. */
export function detailReply(check: Check, config: Config, now: number, lastProbe: LastProbe | null = null, blockedBy: readonly string[] = []): Reply {
  const head = detailHead(check, config, now, blockedBy);
  const live = lastProbe && {
    at: new Date(lastProbe.at).toISOString(), status: lastProbe.status, responseTime: lastProbe.responseTime, region: lastProbe.region,
  };
  return jsonReply(`${head}${JSON.stringify(live)}}}`);
}

interface ListPage {
  /** The checks' version the page was last known good at. */
  version: number;
  checks: Check[];
  meta: PageMeta;
  body: Buffer;
}

/**
 * Rendered pages kept, in bytes. The cache keeps between half of it and all of it, so its half
 * must hold the pages in use: every page of a 10,000-check account at three page sizes, filtered
 * and not, is about 26 MB (it was 23 MB before items carried `schedule` and `timezone`, and at
 * 48 MB pages were dropped and rendered again: the bench's list lost 30% of its rate).
 */
const LIST_PAGES_BYTES = 64 * 1024 * 1024;

/**
 * Rendered list pages, by account, credential restriction and query. A page is reused as is
 * while no check changed anywhere (one comparison). Once something changed, the page's checks
 * are listed again (the ids and records are cached below) and the rendered bytes are reused
 * when they are the very same records: a busy instance changes a few checks a second, and most
 * pages do not hold them.
 */
export class ListPages {
  private readonly pages = new Lru<string, ListPage>(LIST_PAGES_BYTES, (page) => page.body.length + 256);

  constructor(private readonly config: Config) {}

  reply(key: string, version: number, list: () => Answer<{ data: Check[]; meta: PageMeta }>): Answer<Reply> {
    const hit = this.pages.get(key);
    if (hit && hit.version === version) return jsonReply(hit.body);
    return whenAnswered(list(), (page) => this.listed(key, version, hit, page));
  }

  private listed(key: string, version: number, hit: ListPage | undefined, page: { data: Check[]; meta: PageMeta }): Reply {
    if (hit && sameRecords(hit.checks, page.data) && hit.meta.cursor === page.meta.cursor && hit.meta.total === page.meta.total) {
      hit.version = version;
      return jsonReply(hit.body);
    }
    const body = listBody(page.data, page.meta, this.config);
    this.pages.set(key, { version, checks: page.data, meta: page.meta, body });
    return jsonReply(body);
  }
}

function sameRecords(a: Check[], b: Check[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

import { Registry } from 'prom-client';
import type { ChecksService } from '../core/checks-service.js';
import type { Principal } from '../core/principal.js';
import type { StatsService } from '../core/stats-service.js';
import { checkRegistry, UPTIME_WINDOWS, type CheckReading } from './check-metrics.js';

/** `/metrics`: the process's metrics and those of the checks the scraping key may see. */
export class MetricsService {
  constructor(
    private readonly checks: Pick<ChecksService, 'all'>,
    private readonly stats: Pick<StatsService, 'multiRange'>,
    /** The process's series, each feature's registered in it. */
    private readonly process: Registry,
    private readonly live: (checkId: string) => CheckReading['live'],
  ) {}

  get contentType(): string {
    return this.process.contentType;
  }

  async scrape(principal: Principal): Promise<string> {
    const readings: CheckReading[] = [];
    for (const check of await this.checks.all(principal)) {
      const stats = await this.stats.multiRange(principal, check.id, UPTIME_WINDOWS.join(','));
      readings.push({
        check,
        uptime: { '1d': stats['1d']?.uptimePercentage ?? null, '7d': stats['7d']?.uptimePercentage ?? null, '30d': stats['30d']?.uptimePercentage ?? null },
        live: this.live(check.id),
      });
    }
    return Registry.merge([this.process, checkRegistry(readings)]).metrics();
  }
}

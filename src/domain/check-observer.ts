import type { Check } from './records.js';

/** What the engine hears about: the service owns mutations, the engine follows them. */
export interface CheckObserver {
  /**
   * A check was created, changed, paused (`check.disabled`) or resumed: (re)schedule or
   * unschedule it; run it at once when runNow.
   */
  checkSaved(check: Check, runNow: boolean): void;
  checkDeleted(check: Check): void;
  /** Only fields that do not touch the schedule changed (name, folder…): views refresh it. */
  checkEdited?(check: Check): void;
}

/** Where check mutations are announced (the checks service): a module that follows checks subscribes itself. */
export interface CheckEvents {
  observe(observer: CheckObserver): void;
}

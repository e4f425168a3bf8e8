/**
 * A bounded map that forgets what has not been used for a while: entries live in a young and
 * an old generation of up to half the capacity each; a hit in the old one moves the entry to the
 * young one, and when the young one is full it becomes the old one (the old one is dropped).
 * A hit in the young generation is one map lookup, which matters on paths every request takes.
 * Capacity counts entries, or whatever `weigh` says an entry weighs (bytes, say).
 */
export class Lru<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private youngWeight = 0;
  private readonly generation: number;

  constructor(
    capacity: number,
    private readonly weigh: (value: V) => number = () => 1,
  ) {
    this.generation = Math.max(1, Math.floor(capacity / 2));
  }

  get(key: K): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const aged = this.old.get(key);
    if (aged !== undefined) {
      this.old.delete(key);
      this.add(key, aged);
    }
    return aged;
  }

  set(key: K, value: V): void {
    this.old.delete(key);
    this.add(key, value);
  }

  delete(key: K): void {
    this.dropYoung(key);
    this.old.delete(key);
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
    this.youngWeight = 0;
  }

  /** Forgets every entry the test picks (cache purges). */
  deleteWhere(test: (key: K, value: V) => boolean): void {
    for (const [key, value] of this.young) if (test(key, value)) this.dropYoung(key);
    for (const [key, value] of this.old) if (test(key, value)) this.old.delete(key);
  }

  private add(key: K, value: V): void {
    if (!this.dropYoung(key) && this.youngWeight >= this.generation) {
      this.old = this.young;
      this.young = new Map();
      this.youngWeight = 0;
    }
    this.young.set(key, value);
    this.youngWeight += this.weigh(value);
  }

  private dropYoung(key: K): boolean {
    const value = this.young.get(key);
    if (value === undefined) return false;
    this.young.delete(key);
    this.youngWeight -= this.weigh(value);
    return true;
  }
}

/** Outcome of counting one request against a fixed window. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

/**
 * The rate limiter port: fixed windows of `windowMs` per key. In-memory per process by default; Redis when
 * processes must share one budget (scale-out).
 */
export interface RateLimiter {
  readonly kind: 'memory' | 'redis';
  /** Synchronous when the count lives in this process, so the request gate need not yield. */
  consume(key: string, limit: number, windowMs: number): RateDecision | Promise<RateDecision>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function decide(count: number, limit: number, windowStart: number, windowMs: number, now: number): RateDecision {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetMs: windowStart + windowMs - now,
  };
}

import type { Clock } from '@mailcast/core';

export class SystemClock implements Clock {
  now(): Date {
    return new Date();
  }
}

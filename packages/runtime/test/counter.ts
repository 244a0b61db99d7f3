import { ChatError, type Command } from '@chat/protocol';
import type { ActorBehavior, ActorContext } from '../src/index.js';
import type { AnyProtocols } from './untyped.js';

/** A small actor used to exercise the runtime: a list of numbers and a timer log. */
export interface CounterState {
  values: number[];
  fired: string[];
  /** How many times it was put to rest (`atRest`). */
  rests?: number;
}

export type CounterEvent = { type: 'added'; value: number } | { type: 'fired'; name: string };

/** Observes the runtime from inside handlers: concurrency and latches. */
export class Probe {
  active = 0;
  maxActive = 0;
  handled = 0;
  private latch: Promise<void> | undefined;
  private openLatch: (() => void) | undefined;

  hold(): void {
    this.latch = new Promise((resolve) => (this.openLatch = resolve));
  }
  release(): void {
    this.openLatch?.();
    this.latch = undefined;
  }
  async enter(): Promise<void> {
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    if (this.latch) await this.latch;
  }
  leave(): void {
    this.active--;
    this.handled++;
  }
}

/** Typed as an actor of the real protocols, so hosts and the test kit take it; its commands are its own. */
export function counterBehavior(probe = new Probe()): ActorBehavior<CounterState, CounterEvent> {
  return counter(probe) as unknown as ActorBehavior<CounterState, CounterEvent>;
}

export function counter(probe = new Probe()): ActorBehavior<CounterState, CounterEvent, AnyProtocols> {
  return {
    type: 'user',
    eventVersion: 1,
    initial: () => ({ values: [], fired: [] }),
    async handle(ctx: ActorContext<CounterState>, command: Command) {
      await probe.enter();
      try {
        switch (command.type) {
          case 'add': {
            // Yield between decide and reply so overlapping work would show.
            await new Promise((resolve) => setImmediate(resolve));
            const value = command.value as number;
            const reply = { count: ctx.state.values.length + 1 };
            if (!ctx.holding('poll')) return { events: [{ type: 'added', value }], reply };
            ctx.timers.cancel('poll');
            const release = [{ name: 'poll', reply: [...ctx.state.values, value] }];
            return { events: [{ type: 'added', value }], reply, release };
          }
          case 'get':
            return { reply: ctx.state };
          case 'addSoftly':
            return { soft: [{ type: 'added', value: command.value as number }], reply: null };
          case 'sleep':
            await new Promise((resolve) => setTimeout(resolve, command.ms as number));
            return { reply: 'woke' };
          case 'arm':
            ctx.timers.set(command.name as string, command.ms as number);
            return { reply: 'armed' };
          case 'wait':
            // A long poll: answered by the next `add`, or `timeout` when no add came.
            if (ctx.state.values.length > (command.after as number)) return { reply: ctx.state.values };
            ctx.timers.set('poll', command.ms as number);
            return { hold: 'poll' };
          case 'spread':
            return { fanouts: [{ type: 'user', keys: command.keys as string[], body: { type: 'add', value: 1 } }] };
          case 'fail':
            throw new ChatError('BAD_REQUEST', 'Refused on purpose');
          default:
            throw new ChatError('BAD_REQUEST', `unknown command ${command.type}`);
        }
      } finally {
        probe.leave();
      }
    },
    apply(state, event) {
      if (event.type === 'added') state.values.push(event.value);
      else state.fired.push(event.name);
    },
    // A counter holding -1 is pinned: it stays in memory, as a live event queue does.
    canPassivate: (state) => !state.values.includes(-1),
    atRest: (state) => void (state.rests = (state.rests ?? 0) + 1),
    onTimer(ctx, name) {
      if (name === 'poll') return ctx.holding('poll') ? { release: [{ name: 'poll', reply: 'timeout' }] } : {};
      return { events: [{ type: 'fired', name }] };
    },
  };
}

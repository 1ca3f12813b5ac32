import type { DomainEvent, RecordedEvent } from './events.js';

/**
 * One aggregate's pure logic: what a command decides, and how events fold into state. Neither
 * may change the state it is given: `evolve` returns a new state (sharing what did not change),
 * since a folded state is kept and handed to later commands (docs/decisions/0022).
 */
export interface Decider<Command, Event extends DomainEvent, State> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  initialState(): State;
}

export function foldEvents<Event extends DomainEvent, State>(
  decider: Pick<Decider<unknown, Event, State>, 'evolve' | 'initialState'>,
  events: readonly Event[],
): State {
  return events.reduce(decider.evolve, decider.initialState());
}

/** Stored events folded onto a state already folded from the events before them. */
export function foldOnto<Event extends DomainEvent, State>(decider: Pick<Decider<unknown, Event, State>, 'evolve'>, state: State, events: readonly RecordedEvent[]): State {
  return (events as unknown as Event[]).reduce(decider.evolve, state);
}

/** Whether `events` are exactly the revisions after `revision`, in order, with none missing. */
export function continuesFrom(revision: bigint, events: readonly RecordedEvent[]): boolean {
  return events.every((event, index) => event.revision === revision + 1n + BigInt(index));
}

/** One user's stream folded into state: another user's stream is, to this user, one that does not exist. */
export function foldOwnStream<Event extends DomainEvent, State>(
  decider: Pick<Decider<unknown, Event, State>, 'evolve' | 'initialState'>,
  history: readonly RecordedEvent[],
  userId: string,
): State {
  if (history.length === 0 || history[0].metadata.userId !== userId) return decider.initialState();
  return foldEvents(decider, history as unknown as Event[]);
}

import type { DomainEvent, RecordedEvent } from './events.js';

/** One aggregate's pure logic: what a command decides, and how events fold into state. */
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

/** One user's stream folded into state: another user's stream is, to this user, one that does not exist. */
export function foldOwnStream<Event extends DomainEvent, State>(
  decider: Pick<Decider<unknown, Event, State>, 'evolve' | 'initialState'>,
  history: readonly RecordedEvent[],
  userId: string,
): State {
  if (history.length === 0 || history[0].metadata.userId !== userId) return decider.initialState();
  return foldEvents(decider, history as unknown as Event[]);
}

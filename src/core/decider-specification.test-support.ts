import type { Decider } from './decider.js';
import type { DomainEvent } from './events.js';

/** given(events).when(command).then(events) — decider unit tests read as specifications. */
export function specification<Command, Event extends DomainEvent, State>(decider: Decider<Command, Event, State>) {
  return {
    given(history: Event[]) {
      return {
        when(command: Command) {
          const run = () => decider.decide(command, history.reduce(decider.evolve, decider.initialState()));
          return {
            then(expected: Event[]) {
              expect(run()).toEqual(expected);
            },
            thenThrows(check: (error: unknown) => void) {
              let thrown: unknown;
              try {
                run();
              } catch (error) {
                thrown = error;
              }
              expect(thrown).toBeDefined();
              check(thrown);
            },
          };
        },
      };
    },
  };
}

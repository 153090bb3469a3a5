import type { SideEffectPeer } from '../../test/support/side-effect-peer';
import type { Decide, ScriptedTask } from './load';

// The side-effect tasks judged at the peer, which counts what it received: each task's booking
// (at most once: Weft never sends it again on its own) and its payment (keyed: sent again only with
// the same Idempotency-Key, so the peer takes it once) must each have taken effect exactly once.
// A booking a crash interrupted waits for a person, who looks at the peer as they would at the
// booking system: it took effect (approve), or it did not (approve with {"run_again": true}).

type SubmittedTask = ScriptedTask & { workflowId: string };

export interface SideEffectFigures {
  tasks: number;
  /** Bookings and payments the peer received, sends again included. */
  requests: { bookings: number; payments: number };
  /** Tasks whose booking the peer took more than once, or never. */
  bookingsNotOnce: string[];
  /** Tasks whose payment took effect more than once (more than one key), or never. */
  paymentsNotOnce: string[];
  /** Calls a fault interrupted: bookings a person was asked about, payments sent again with their key. */
  interrupted: { bookingsAsked: number; paymentsResent: number };
}

const bookings = '/api/bookings';
const payments = '/api/payments';
const outcomeApproval = /\/tool\/[^/]+\/outcome$/;

/** The person's answer to a booking whose outcome a crash left unknown: what the peer says happened. */
export function decideInterruptedBooking(peer: SideEffectPeer, tasks: SubmittedTask[], asked: Set<string>): Decide {
  return (approvalId) => {
    const task = tasks.find((t) => t.ref && approvalId.startsWith(`${t.workflowId}/`));
    if (!task || !outcomeApproval.test(approvalId)) return {};
    asked.add(approvalId);
    const tookEffect = peer.requests.some((request) => request.path === bookings && request.ref === task.ref);
    return tookEffect ? {} : { modified_action: '{"run_again": true}' };
  };
}

export function sideEffectFigures(peer: SideEffectPeer, tasks: SubmittedTask[], asked: Set<string>): SideEffectFigures {
  const count = (path: string) => peer.requests.filter((request) => request.path === path).length;
  // Per side-effect task: its booking requests, and its payment requests with the keys they carried.
  const atPeer = tasks.flatMap((task) => {
    if (!task.ref) return [];
    const of = (path: string) => peer.requests.filter((request) => request.path === path && request.ref === task.ref);
    const paid = of(payments);
    return [{ task, bookings: of(bookings).length, payments: paid.length, keys: new Set(paid.map((request) => request.idempotencyKey)) }];
  });
  return {
    tasks: atPeer.length,
    requests: { bookings: count(bookings), payments: count(payments) },
    bookingsNotOnce: atPeer.filter((t) => t.bookings !== 1).map((t) => `${t.task.workflowId}: ${t.bookings} bookings`),
    paymentsNotOnce: atPeer.filter((t) => t.keys.size !== 1 || t.keys.has(undefined)).map((t) => `${t.task.workflowId}: ${t.keys.size} payment keys`),
    interrupted: {
      bookingsAsked: asked.size,
      paymentsResent: atPeer.reduce((sum, t) => sum + t.payments - t.keys.size, 0),
    },
  };
}

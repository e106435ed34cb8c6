/**
 * Whether the process is shutting down: intake answers 503 and readiness fails from that moment, so
 * load balancers and the platform's retries go to a replica that stays.
 */
export class Lifecycle {
  stopping = false;
}

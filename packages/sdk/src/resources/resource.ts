import type { Plinth } from '../client.js';

/** A group of operations sharing the client's transport, retries and credentials. */
export abstract class Resource {
  protected readonly client: Plinth;

  constructor(client: Plinth) {
    this.client = client;
  }
}

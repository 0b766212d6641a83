import { TimeTravelError } from '../clients/time-travel';
import { CliError } from './errors';

/** Runs a time-travel request, its refusals (unknown agent or cycle, a cycle not finished) as one-line errors. */
export async function travel<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof TimeTravelError) throw new CliError(error.message);
    throw error;
  }
}

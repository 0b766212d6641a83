/** A read the arguments make impossible; its message is meant for the model. */
export class ReadError extends Error {
  override readonly name = 'ReadError';
}

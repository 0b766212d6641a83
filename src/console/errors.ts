/** A page or an action about something that does not exist: 404 with this message. */
export class NotFound extends Error {}

/** A request the console refuses as it stands (bad form, missing confirmation): 400 with this message. */
export class BadRequest extends Error {}

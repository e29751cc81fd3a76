/** The error an operation ends with when another operation (a Delete) took its resource over. */
export const SUPERSEDED = Object.freeze({ code: 'Canceled', message: 'This operation was superseded by another' });

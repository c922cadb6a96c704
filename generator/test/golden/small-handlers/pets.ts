// Handlers of the "Pets" operations. Written once by `npm run generate` as a starting point; yours to edit.
// (The generator never overwrites this file. Remove this note once the handlers are written.)
import type { PetsHandlers } from '../small/handlers.ts';
import type * as op from '../small/operations.ts';

export const petsHandlers = {
  // (input: op.ListPetsInput, context: RequestContext)
  listPets(): Promise<op.ListPetsResult> {
    return Promise.reject(new Error('listPets: this handler is still to be written'));
  },
  // (input: op.CreatePetInput, context: RequestContext)
  createPet(): Promise<op.CreatePetResult> {
    return Promise.reject(new Error('createPet: this handler is still to be written'));
  },
  // (input: op.GetPetInput, context: RequestContext)
  getPet(): Promise<op.GetPetResult> {
    return Promise.reject(new Error('getPet: this handler is still to be written'));
  },
  // (input: op.RenamePetInput, context: RequestContext)
  renamePet(): Promise<op.RenamePetResult> {
    return Promise.reject(new Error('renamePet: this handler is still to be written'));
  },
  // (input: op.ListPetNamesInput, context: RequestContext)
  listPetNames(): Promise<op.ListPetNamesResult> {
    return Promise.reject(new Error('listPetNames: this handler is still to be written'));
  },
} satisfies PetsHandlers;

/** What other modules may use of `projects`; nothing else of the folder is theirs to touch. */
export { addProject, allowedDomains, projectInOrgs, projectsOf } from './projects.service.js';

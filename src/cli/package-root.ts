export { packageRoot } from '../config/paths';

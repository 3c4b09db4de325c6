/** Signs an idle user out (lib/inactivity.ts); loaded only once someone is signed in. */
import { useNavigate } from 'react-router-dom';
import { useInactivityLogout } from '../lib/inactivity';
import { useSession } from '../lib/session';

export default function InactivityLogout() {
  const session = useSession();
  const navigate = useNavigate();
  useInactivityLogout(true, () => {
    void session.signOut().then(() => navigate('/login'));
  });
  return null;
}

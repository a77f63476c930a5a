"""A node of one realm per tenant: users log in by ticket, and the
authenticator sends each to its tenant's realm, whatever realm it asked
for."""

from tenancy.authenticator import Authenticator  # noqa: F401
from tenancy.service import TenantService  # noqa: F401

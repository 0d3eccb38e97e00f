from django.apps import AppConfig


class LabDataConfig(AppConfig):
    name = "labdata"
    verbose_name = "Lab files and generated labs"
